"""Storage: the embedded server, engines, sessions with SET LOCAL, schema and migrations."""
