"""Studies of published results and of SAMSA itself: reproductions, human judgments, annotation comparison, validity."""
