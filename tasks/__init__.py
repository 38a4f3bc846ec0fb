"""Reasoning tasks built on solved theories."""
