# Unit tests of problems/: test_problems and test_params load the example
# plugin from the path in QMOL_EXAMPLE_PLUGIN (they skip those cases without it).
foreach(t test_problems test_params)
  if(TARGET ${t})
    add_dependencies(${t} qmol_example_plugin)
    set_property(TEST unit.${t} APPEND PROPERTY ENVIRONMENT
      "QMOL_EXAMPLE_PLUGIN=$<TARGET_FILE:qmol_example_plugin>")
  endif()
endforeach()

# diurnal against SUNDIALS' published cvDiurnal_kry output (tests/diurnal_test.py):
# a tight CVODE run at the example's 12 output times, c1 and c2 at the three
# grid points the example prints.
add_test(NAME problem.diurnal_example
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/diurnal_test.py
          --qmol $<TARGET_FILE:qmol> --scratch ${CMAKE_CURRENT_BINARY_DIR}/diurnal-scratch)
set_tests_properties(problem.diurnal_example PROPERTIES TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
