"""Pure domain logic: webhook transforms and substitution, schedule math, SQL guard and rewrite, row
filters, svcdb predicates, retry policy. Imports only ``schemas`` (and pure third-party parsers); no Faust,
FastAPI, database or broker, so every role and every unit test can use it directly."""
