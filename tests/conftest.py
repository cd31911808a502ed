pytest_plugins = ["tests.fixtures.broker", "tests.fixtures.stack"]
