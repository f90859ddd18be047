"""cfnet: peer-to-peer Chicken Foot dominoes with a mental deck and a signed move log."""

__version__ = "0.1.0"
