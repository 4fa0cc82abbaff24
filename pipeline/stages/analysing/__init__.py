"""Analyses over finished results (no browser, no LLM): judge robustness between two
result sets. Pure statistics; it must not read the store or import another stage.
"""
