y = "tests-auto"
