"""The table protocol as a pure state machine: entry kinds and bodies, who may post what and when,
the round checks, the audit, faults and verdicts, and an in-memory network of tables."""
