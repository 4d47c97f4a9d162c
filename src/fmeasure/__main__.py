"""``python -m fmeasure``: the ``fmeasure`` command line (see :mod:`fmeasure.cli`)."""

import sys

from fmeasure.cli import main

if __name__ == "__main__":
    sys.exit(main())
