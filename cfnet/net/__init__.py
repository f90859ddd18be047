"""The network layer (asyncio only): frames, authenticated links, mDNS discovery, the mesh.

Everything here moves opaque bytes between peers; what the bytes mean is the table's business.
"""
