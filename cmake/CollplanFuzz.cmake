# The fuzz build (COLLPLAN_FUZZ): the runtime and the coll dialect instrumented for libFuzzer,
# ASan and UBSan, and the targets of tests/fuzz; no tools, tests or benchmarks.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 19)
  message(FATAL_ERROR
    "COLLPLAN_FUZZ needs clang 19 with libFuzzer, found ${CMAKE_CXX_COMPILER_ID} "
    "${CMAKE_CXX_COMPILER_VERSION}: configure a build directory of its own with "
    "-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 (Debian packages clang-19 and "
    "libclang-rt-19-dev), e.g. `cmake --preset fuzz`")
endif()

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer,address,undefined)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer,address,undefined)
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }
]] COLLPLAN_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT COLLPLAN_HAVE_LIBFUZZER)
  message(FATAL_ERROR "COLLPLAN_FUZZ: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer,address,"
                      "undefined: install the Debian package libclang-rt-19-dev")
endif()

# Assertions stay on (no NDEBUG) so that LLVM's checked casts and our own asserts fire too;
# -O1 keeps the build short. Every UBSan finding aborts, so libFuzzer records it as a crash.
add_compile_options(-O1 -gline-tables-only -fno-omit-frame-pointer
                    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all)
add_link_options(-fsanitize=address,undefined)

# The fuzz targets load files and parse IR: they need neither tests, benchmarks nor MPI/CUDA.
set(COLLPLAN_BUILD_TESTS OFF)
set(COLLPLAN_BUILD_BENCH OFF)
set(COLLPLAN_ENABLE_MPI OFF)
set(COLLPLAN_ENABLE_CUDA OFF)
include(CollplanDeps)

add_subdirectory(runtime)
if(COLLPLAN_BUILD_COMPILER)
  include(CollplanMLIR)
  add_subdirectory(dialects)
endif()
add_subdirectory(tests/fuzz)
