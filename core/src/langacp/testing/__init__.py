"""Test helpers for langacp: scripted chat models and friends."""
