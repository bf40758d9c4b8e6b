"""Bridges to the tools IR researchers already use, each importing its tool lazily (an
optional extra): `rankscope.integrations.ir_measures` (rankscope as an ir_measures provider,
and so inside PyTerrier's ``pt.Experiment``)."""
