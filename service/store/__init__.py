"""The service's SQLite file: the journal, its schema migrations, an earlier evening's file."""
