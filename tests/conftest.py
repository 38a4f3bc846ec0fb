"""Test helpers (oracle, random theories, brute force) live beside the tests."""
