"""metric-learn's own tests, ported to this package's names: each file here
ports the metric-learn test file of the same name (its docstring says what
maps to what, and what is not ported); they check the interface metric-learn's
users arrive with."""
