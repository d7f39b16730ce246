"""Deciding: atoms x the policy -> verdicts (rules, locations, path protection, self-protection)."""
