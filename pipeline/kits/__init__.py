"""iwc-bench."""
