# SPDX-License-Identifier: MIT
# Documentation targets and checks.
#   docs           the API reference: Doxygen over include/tessera (docs/Doxyfile)
#                  into <build>/docs/html; any Doxygen warning (an undocumented
#                  function, type, field or macro) fails the target
#   doc_snippets   (ctest) every ```c block of README.md and docs/*.md is compiled
#                  and linked against the library (scripts/check_doc_snippets.py)
find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  # The Doxyfile in docs/ holds every setting; this one only points it at
  # the build tree, so that `doxygen docs/Doxyfile` from the source tree
  # works as well (it writes to build/docs).
  set(TESSERA_DOXYFILE ${PROJECT_BINARY_DIR}/Doxyfile)
  file(WRITE ${TESSERA_DOXYFILE}
       "@INCLUDE = ${PROJECT_SOURCE_DIR}/docs/Doxyfile\nOUTPUT_DIRECTORY = ${PROJECT_BINARY_DIR}/docs\n")
  add_custom_target(docs
    COMMAND ${DOXYGEN_EXECUTABLE} ${TESSERA_DOXYFILE}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Doxygen: the API reference in ${PROJECT_BINARY_DIR}/docs/html"
    VERBATIM)
endif()

find_package(Python3 COMPONENTS Interpreter QUIET)
if(TESSERA_BUILD_TESTS AND Python3_Interpreter_FOUND)
  add_test(NAME doc_snippets
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_doc_snippets.py
            --cc ${CMAKE_C_COMPILER} --include ${PROJECT_SOURCE_DIR}/include
            --library $<TARGET_FILE:tessera_shared>
            --flags "${CMAKE_C_FLAGS} ${CMAKE_EXE_LINKER_FLAGS}"
            --work ${PROJECT_BINARY_DIR}/doc_snippets
            ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs)
endif()
