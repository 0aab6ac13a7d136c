# Valgrind memcheck over small single-rank qmol runs (tests/valgrind_test.py):
# QSS, CVODE, mixed, a grid run with its XDMF sidecar and a refused run, each
# with zero memcheck errors and zero definitely lost blocks; Open MPI's own
# leaks and noise are suppressed by tests/valgrind/openmpi.supp. About 40 s
# on an idle 2-core machine (most of it MPI_Init under valgrind).
#
# Registered only when valgrind is installed (Debian package valgrind: it
# belongs in the package list of scripts/deps) and the build is not a
# sanitizer build (scripts/test-sanitizers: valgrind and ASan do not mix; the
# script also skips itself, exit 77, when qmol links a sanitizer runtime).
find_program(QMOL_VALGRIND NAMES valgrind)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _qmol_vg_config)
set(_qmol_vg_flags "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_qmol_vg_config}} ${CMAKE_EXE_LINKER_FLAGS}")
if(NOT QMOL_VALGRIND)
  message(STATUS "valgrind not found: test valgrind.memcheck not registered")
elseif(_qmol_vg_flags MATCHES "sanitize")
  message(STATUS "sanitizer build: test valgrind.memcheck not registered")
else()
  add_test(NAME valgrind.memcheck
    COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/valgrind_test.py
            --qmol $<TARGET_FILE:qmol> --valgrind ${QMOL_VALGRIND}
            --suppressions ${CMAKE_CURRENT_SOURCE_DIR}/valgrind/openmpi.supp
            --scratch ${CMAKE_CURRENT_BINARY_DIR}/valgrind-scratch)
  # 600: ~30x slower than a plain run, and slower again next to other tests
  set_tests_properties(valgrind.memcheck PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
