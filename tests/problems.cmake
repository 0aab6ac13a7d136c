# Unit tests of problems/: test_problems and test_params load the example
# plugin from the path in QMOL_EXAMPLE_PLUGIN (they skip those cases without it).
foreach(t test_problems test_params)
  if(TARGET ${t})
    add_dependencies(${t} qmol_example_plugin)
    set_property(TEST unit.${t} APPEND PROPERTY ENVIRONMENT
      "QMOL_EXAMPLE_PLUGIN=$<TARGET_FILE:qmol_example_plugin>")
  endif()
endforeach()
