"""The signed record: canonical encoding, identity keys, signed hash-chained entries, log files."""
