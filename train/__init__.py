"""Training adapters: reward functions, datasets and recipes."""
