"""What cfnet keeps on disk: the state directory, identities, table logs and the saved games."""
