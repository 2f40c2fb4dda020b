"""Configuration: the config file and how a run's knobs combine.

`settings` reads and writes the config file (theme, backends, profiles),
`tuning` layers defaults, profile and overrides into one run's parameters.
"""
