"""The warlog domain: the Game aggregate, its events, verifiable dice and the rulesets.

Nothing in this package imports Flask, marshmallow, redis or rq.
"""
