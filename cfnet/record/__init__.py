"""The signed record: canonical encoding, identity keys, signed hash-chained entries, the log file."""
