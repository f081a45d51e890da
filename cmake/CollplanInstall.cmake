# Install rules: the runtime (libcollplan.so and libcollplan.a; libcollplan-mpi.so with MPI), its
# public headers, the tools, the schemas and shipped bundles, a CMake package
# (find_package(collplan CONFIG) -> collplan::runtime, collplan::runtime_static) and pkg-config
# files (collplan.pc, collplan-static.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The shared runtime: every object of the static runtime, exporting the C API (collplan_*)
# alone, so the C++ internals and the libraries they link stay private to it.
add_library(collplan_shared SHARED ${PROJECT_SOURCE_DIR}/cmake/install/empty.c)
target_link_libraries(collplan_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,collplan_runtime>")
target_link_options(collplan_shared PRIVATE
  "-Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/install/collplan.map" "-Wl,--no-undefined")
set_target_properties(collplan_shared PROPERTIES
  OUTPUT_NAME collplan VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINKER_LANGUAGE CXX LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/install/collplan.map)

set(COLLPLAN_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/runtime/api/collplan.h
                            ${PROJECT_SOURCE_DIR}/runtime/api/collplan.hpp)
# With the mpi backend built in, static users link MPI too, and get its API's headers.
set(COLLPLAN_CONFIG_HAVE_MPI ${COLLPLAN_HAVE_MPI})
set(COLLPLAN_PC_MPI_LIBS "")
if(COLLPLAN_HAVE_MPI)
  list(APPEND COLLPLAN_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/runtime/api/collplan_mpi.h
                                      ${PROJECT_SOURCE_DIR}/runtime/api/collplan_mpi.hpp)
  foreach(lib ${MPI_C_LIBRARIES})
    string(APPEND COLLPLAN_PC_MPI_LIBS " ${lib}")
  endforeach()
endif()
# With the cuda backend built in, static users link the CUDA runtime too, and get its API's
# headers (which they compile with the CUDA toolkit's include directory).
set(COLLPLAN_CONFIG_HAVE_CUDA ${COLLPLAN_HAVE_CUDA})
set(COLLPLAN_PC_CUDA_LIBS "")
if(COLLPLAN_HAVE_CUDA)
  string(APPEND COLLPLAN_PC_CUDA_LIBS " ${CUDA_cudart_LIBRARY}")
  list(APPEND COLLPLAN_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/runtime/api/collplan_cuda.h
                                      ${PROJECT_SOURCE_DIR}/runtime/api/collplan_cuda.hpp)
endif()
set(COLLPLAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/collplan)

install(TARGETS collplan_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
# libcollplan-mpi.so, the PMPI library for unchanged MPI programs (with the mpi backend).
if(TARGET collplan_mpi_interpose)
  install(TARGETS collplan_mpi_interpose LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT runtime)
endif()
# libnccl-tuner-collplan.so, the NCCL tuner plugin (NCCL_TUNER_PLUGIN=collplan finds it on the
# library path).
if(TARGET collplan_nccl_tuner)
  install(TARGETS collplan_nccl_tuner LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT runtime)
endif()
install(FILES $<TARGET_FILE:collplan_runtime> DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RENAME libcollplan.a COMPONENT runtime)
install(FILES ${COLLPLAN_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/collplan
        COMPONENT runtime)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/collplanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/install/collplanConfig.cmake
  INSTALL_DESTINATION ${COLLPLAN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/collplanConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/collplanConfig.cmake
              ${PROJECT_BINARY_DIR}/install/collplanConfigVersion.cmake
        DESTINATION ${COLLPLAN_INSTALL_CMAKEDIR} COMPONENT runtime)

# pkg-config: relocatable (paths relative to the .pc file), whatever --prefix the install gets.
file(RELATIVE_PATH COLLPLAN_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" COLLPLAN_PC_TO_PREFIX "${COLLPLAN_PC_TO_PREFIX}")
# collplan.pc links the shared library (with an rpath to it), collplan-static.pc the static one.
foreach(pc collplan collplan-static)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/install/${pc}.pc.in
                 ${PROJECT_BINARY_DIR}/install/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/install/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)
endforeach()

# Tools (those this build has: the MLIR-based ones only with COLLPLAN_BUILD_COMPILER).
foreach(tool plan-bench plan-verify plan-view calibrate collplan-shm-launch collplan-mpi-baseline
             plan-compile plan-tune coll-opt)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/plans/schema
        DESTINATION ${CMAKE_INSTALL_DATADIR}/collplan COMPONENT tools)
# The shipped bundles without their tuning reports: share/collplan/bundles/<machine>/bundle.json.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/plans/bundles
        DESTINATION ${CMAKE_INSTALL_DATADIR}/collplan COMPONENT tools
        FILES_MATCHING PATTERN "bundle.json")
install(FILES ${PROJECT_SOURCE_DIR}/plans/defaults.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/collplan COMPONENT tools)
