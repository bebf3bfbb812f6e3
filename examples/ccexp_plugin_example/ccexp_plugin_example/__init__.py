"""An example ccexp plugin: :class:`~ccexp_plugin_example.vote_linkage.VoteLinkage`, registered as ``vote_linkage``."""

from .vote_linkage import VoteLinkage, vote_similarity

__all__ = ["VoteLinkage", "vote_similarity"]
