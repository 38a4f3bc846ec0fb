"""The frozen benchmark and model evaluation: building and auditing the benchmark, running
models on it, reports of the runs, and export as a Hugging Face dataset folder."""
