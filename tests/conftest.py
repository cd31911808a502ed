pytest_plugins = [
    "tests.fixtures.broker",
    "tests.fixtures.stack",
    "tests.fixtures.handler",
    "tests.fixtures.worker",
    "tests.fixtures.tables",
]
