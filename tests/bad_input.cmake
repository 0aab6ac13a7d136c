# Bad input, one case per row of docs/bad-input.md (tests/bad_input_test.py):
# every case exits 2 (on 2 ranks: every rank), prints one line naming the
# input and leaves no file. Cases qmol does not handle yet are listed in
# EXPECTED_FAILURES in the script (reported as xfail).
#   bad_input.numbers  non-finite, non-numeric, out-of-range values of every numeric option
#   bad_input.options  other options, --set parameters, tf <= t0, memory estimate
#   bad_input.files    output path, INI files, --bdf-file, plugins, qmol info, qmol list
#   bad_input.mpi      2 ranks: more ranks than states, partition files, rank agreement
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
foreach(group numbers options files mpi)
  add_test(NAME bad_input.${group}
    COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/bad_input_test.py ${group}
            --qmol $<TARGET_FILE:qmol> --plugin $<TARGET_FILE:qmol_example_plugin>
            --mpiexec "${QMOL_MPIEXEC_STRING}"
            --scratch ${CMAKE_CURRENT_BINARY_DIR}/bad-input-scratch
            --source-dir ${PROJECT_SOURCE_DIR})
  # 300: the sanitizer build (scripts/test-sanitizers) runs each qmol ~10x slower
  set_tests_properties(bad_input.${group} PROPERTIES TIMEOUT 300 PROCESSORS 2
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endforeach()
