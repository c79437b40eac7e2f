"""``python -m c2fsum ...`` and ``torchrun --nproc_per_node N -m c2fsum train ...`` run the CLI."""

import sys

from c2fsum.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
