"""What the tests share: helpers, the golden corpus, fuzz inputs, loopback servers, gRPC scenarios.

tests/conftest.py puts this folder on sys.path, so a test imports them by name (`import golden_corpus`).
"""
