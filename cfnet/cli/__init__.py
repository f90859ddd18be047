"""The `cfnet` command: its options and one module per sub-command."""
