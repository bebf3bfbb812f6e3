"""Triplet correlation clustering (Ukkonen 2017): Algorithms 1 and 2."""

from .approx import TripletApprox, triplet_cc_instance
from .approx_lp import TripletApproxLP
from .crowdclust import CrowdClustDPMM
from .local_search import LsAD, LsADVC, LsEQ, LsEQVC, TripletLocalSearch, triplet_local_search
from .tste import TSTEDPMM, tste_embedding
from .vertex_cover import consistent_triplets, triplet_vertex_cover

__all__ = [
    "CrowdClustDPMM",
    "LsAD",
    "LsADVC",
    "LsEQ",
    "LsEQVC",
    "TSTEDPMM",
    "TripletApprox",
    "TripletApproxLP",
    "TripletLocalSearch",
    "consistent_triplets",
    "triplet_cc_instance",
    "triplet_local_search",
    "triplet_vertex_cover",
    "tste_embedding",
]
