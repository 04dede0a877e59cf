# SPDX-License-Identifier: MIT
# What `cmake --install` puts in a prefix, and the files that let other
# projects find it:
#   include/tessera/*.h                      the public C API
#   lib/libtessera.a, lib/libtessera.so*     static and shared (SONAME, only ts_* exported)
#   lib/cmake/tessera/tesseraConfig.cmake    find_package(tessera): tessera::tessera,
#                                            tessera::tessera_static, tessera::tessera_shared
#   lib/cmake/tessera/tesseraConfigVersion.cmake
#   lib/pkgconfig/tessera.pc                 pkg-config tessera (--static for the archive's needs)
# Included by the top-level CMakeLists.txt after the library targets.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The version lives in two places, CMake's project() and the public header's
# macros (which a C program reads at compile time); configuring stops when
# they disagree, so a release cannot ship a header that names another version.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/tessera/tessera.h TESSERA_HEADER_VERSION_LINES
     REGEX "^#define TS_VERSION_(MAJOR|MINOR|PATCH) [0-9]+$")
set(TESSERA_HEADER_VERSION "")
foreach(part MAJOR MINOR PATCH)
  string(REGEX MATCH "TS_VERSION_${part} ([0-9]+)" match "${TESSERA_HEADER_VERSION_LINES}")
  list(APPEND TESSERA_HEADER_VERSION "${CMAKE_MATCH_1}")
endforeach()
list(JOIN TESSERA_HEADER_VERSION "." TESSERA_HEADER_VERSION)
if(NOT TESSERA_HEADER_VERSION STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "include/tessera/tessera.h says version ${TESSERA_HEADER_VERSION}, CMakeLists.txt says "
                      "${PROJECT_VERSION}: update TS_VERSION_MAJOR/MINOR/PATCH and TS_VERSION_STRING with project()")
endif()

set(TESSERA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

install(TARGETS tessera_static tessera_shared EXPORT tesseraTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${TESSERA_CMAKE_DIR})

configure_package_config_file(cmake/tesseraConfig.cmake.in ${PROJECT_BINARY_DIR}/tesseraConfig.cmake
  INSTALL_DESTINATION ${TESSERA_CMAKE_DIR})
# 0.x: a minor version may break the API, so 0.1 accepts only 0.1.*; from
# 1.0 on the same major version is enough.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(TESSERA_COMPATIBILITY SameMinorVersion)
else()
  set(TESSERA_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${TESSERA_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  DESTINATION ${TESSERA_CMAKE_DIR})

# pkg-config. Libs.private is what a static link adds after -ltessera: the
# OpenMP runtime (gcc: -lgomp; a library outside the compiler's own search
# path goes by its full path), pthreads and libm.
set(TESSERA_PC_LIBS_PRIVATE "")
if(TESSERA_OPENMP)
  foreach(lib ${OpenMP_C_LIB_NAMES})
    get_filename_component(dir "${OpenMP_${lib}_LIBRARY}" DIRECTORY)
    if(lib STREQUAL "pthread")
      continue() # named once below
    elseif(dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      string(APPEND TESSERA_PC_LIBS_PRIVATE " -l${lib}")
    else()
      string(APPEND TESSERA_PC_LIBS_PRIVATE " ${OpenMP_${lib}_LIBRARY}")
    endif()
  endforeach()
endif()
string(APPEND TESSERA_PC_LIBS_PRIVATE " -lpthread -lm")
string(STRIP "${TESSERA_PC_LIBS_PRIVATE}" TESSERA_PC_LIBS_PRIVATE)
# The prefix is found from where tessera.pc lies (${pcfiledir}), so that
# `cmake --install build --prefix DIR` and DESTDIR installs give a working
# file; absolute install dirs are written as they are.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(TESSERA_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH TESSERA_PC_UP /tessera-prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /tessera-prefix)
  string(REGEX REPLACE "/$" "" TESSERA_PC_UP "${TESSERA_PC_UP}")
  set(TESSERA_PC_PREFIX "\${pcfiledir}/${TESSERA_PC_UP}")
endif()
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(TESSERA_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(TESSERA_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
configure_file(cmake/tessera.pc.in ${PROJECT_BINARY_DIR}/tessera.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/tessera)
