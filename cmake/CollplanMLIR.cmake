# Finds Debian's MLIR 19 and links every MLIR user against the shared libMLIR/libLLVM, so the
# build stays lean (no static MLIR archives, one shared build of MLIR code).
# MLIR's version file only accepts a matching major.minor request, so ask for none and check.
find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/mlir /usr/lib/llvm-19)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "collplan needs MLIR 19; found ${LLVM_PACKAGE_VERSION} at ${MLIR_DIR}")
endif()
message(STATUS "collplan: MLIR ${MLIR_PACKAGE_VERSION} from ${MLIR_DIR}")
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
find_package(Python3 REQUIRED COMPONENTS Interpreter)
include(TableGen)
include(AddLLVM)
include(AddMLIR)

set(LLVM_EXTERNAL_LIT "${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit/lit.py" CACHE FILEPATH "lit")
if(NOT EXISTS "${LLVM_EXTERNAL_LIT}")
  set(LLVM_EXTERNAL_LIT /usr/lib/llvm-19/build/utils/lit/lit.py CACHE FILEPATH "lit" FORCE)
endif()

# collplan_mlir_interface: include paths, definitions and the shared MLIR/LLVM libraries.
add_library(collplan_mlir_interface INTERFACE)
target_include_directories(collplan_mlir_interface SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(_llvm_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(collplan_mlir_interface INTERFACE ${_llvm_defs})
target_link_libraries(collplan_mlir_interface INTERFACE MLIR LLVM)
