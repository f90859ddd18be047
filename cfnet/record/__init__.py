"""The signed record: canonical encoding, identity keys, signed hash-chained entries and the
log file."""
