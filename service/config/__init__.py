"""A club's settings: the models, reading them from a file, and the event's plan built from them."""
