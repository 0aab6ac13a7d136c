# End-to-end tests of the qmol command (tests/cli_test.py): each group runs
# qmol as a subprocess and checks exit codes, messages and result files.
#   cli.bad_input  every kind of bad input: exit 2, one line, no file left
#   cli.output     heat1d runs against the exact solution, --overwrite, --quiet
#   cli.ini        -c run.ini, and the command line winning over it
#   cli.plugin     the example plugin run to completion
#   cli.list_info  qmol list, qmol info
set(QMOL_CLI_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/cli-scratch)
foreach(group bad_input output ini plugin list_info)
  add_test(NAME cli.${group}
    COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.py ${group}
            --qmol $<TARGET_FILE:qmol> --plugin $<TARGET_FILE:qmol_example_plugin>
            --scratch ${QMOL_CLI_SCRATCH} --source-dir ${PROJECT_SOURCE_DIR})
  # 600: the sanitizer build (scripts/test-sanitizers) runs each qmol ~10x slower
  set_tests_properties(cli.${group} PROPERTIES TIMEOUT 600
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endforeach()
