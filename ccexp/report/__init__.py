def make_report(*a, **k):
    raise NotImplementedError
