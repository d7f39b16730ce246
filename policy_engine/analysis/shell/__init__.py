"""Shell analysis: a bash command line -> the atoms it runs, with the paths each one touches."""
