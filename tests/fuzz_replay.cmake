# The fuzz targets (fuzz/, run for a bounded time by scripts/fuzz with clang's
# libFuzzer) built with the project's compiler around fuzz/replay_main.c:
# every seed and regression input of fuzz/corpus/ replayed, with findings
# fatal (QMOL_FUZZ_STRICT) and, in the sanitizer build, under ASan and UBSan.
foreach(target config params)
  add_executable(fuzz_${target}_replay ${PROJECT_SOURCE_DIR}/fuzz/fuzz_${target}.c
    ${PROJECT_SOURCE_DIR}/fuzz/fuzz_common.c ${PROJECT_SOURCE_DIR}/fuzz/replay_main.c)
  target_link_libraries(fuzz_${target}_replay PRIVATE qmol_core)
  add_test(NAME fuzz.replay_${target}
    COMMAND fuzz_${target}_replay ${PROJECT_SOURCE_DIR}/fuzz/corpus/${target})
  set_tests_properties(fuzz.replay_${target} PROPERTIES TIMEOUT 300)
endforeach()
