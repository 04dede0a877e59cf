# Writes OUT with the checkout's `git describe --always --dirty` as
# BENCH_GIT, run at every build (bench/CMakeLists.txt) so that a result's
# "git" field names the commit that was built, not the one configured. The
# file is rewritten only when the text changes, so an unchanged checkout
# rebuilds nothing.
set(describe "unknown")
if(GIT)
  execute_process(COMMAND ${GIT} describe --always --dirty
                  WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE out RESULT_VARIABLE status
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(status EQUAL 0 AND out)
    set(describe "${out}")
  endif()
endif()
set(text "#define BENCH_GIT \"${describe}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
