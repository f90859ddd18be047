"""The network layer (asyncio only): frames, authenticated links, mDNS discovery, the mesh.

Everything here moves opaque bytes between peers; what the bytes mean is the table's business.
"""

NET_VERSION = 2
"""The network protocol's version: in every handshake's hello and every table's mDNS record."""
