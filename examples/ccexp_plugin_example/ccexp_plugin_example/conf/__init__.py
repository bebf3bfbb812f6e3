"""Hydra configs of the plugin (``algorithm/vote_linkage.yaml``), put on Hydra's search path by
``hydra_plugins/ccexp_plugin_example_searchpath``."""
