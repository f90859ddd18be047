"""The mental deck: labels and secret streams, SRA masking on edwards25519, and the hop proofs.
The only code that calls libsodium."""
