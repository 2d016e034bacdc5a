"""Strength work: many simulated games in processes or on Ray, training the weights (PSO,
CMA-ES), and paired comparisons."""
