"""What outlives one hook process: the state store, circuit breakers, session allows."""
