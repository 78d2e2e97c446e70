x          = "tests"
only_tests = "t"
