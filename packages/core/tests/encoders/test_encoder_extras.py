"""The encoders' optional packages: none is imported before an encoder is used, and a missing
one is a setup error that names the extra to install. Runs with or without the extras."""

from __future__ import annotations

import subprocess
import sys


def test_the_onnx_encoder_imports_nothing_until_used_and_names_its_extra() -> None:
    code = (
        "import sys; sys.modules['fastembed'] = None\n"
        "from schemarouter import SchemaRouter, UserError\n"
        "from schemarouter.retrieval import FastEmbedEncoder\n"
        "encoder = FastEmbedEncoder('BAAI/bge-small-en-v1.5')\n"
        "assert 'onnxruntime' not in sys.modules\n"
        "try:\n"
        "    SchemaRouter.from_callables([len]).with_semantic(encoder)\n"
        "except UserError as exc:\n"
        "    print(exc); sys.exit(0 if 'schemarouter-core[onnx]' in str(exc) else 2)\n"
        "sys.exit(1)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_sentence_transformers_encoder_imports_nothing_until_used_and_names_its_extra() -> None:
    code = (
        "import sys; sys.modules['sentence_transformers'] = None\n"
        "from schemarouter import SchemaRouter, UserError\n"
        "from schemarouter.retrieval import SentenceTransformerEncoder\n"
        "encoder = SentenceTransformerEncoder('sentence-transformers/all-MiniLM-L6-v2')\n"
        "assert 'torch' not in sys.modules\n"
        "try:\n"
        "    SchemaRouter.from_callables([len]).with_semantic(encoder)\n"
        "except UserError as exc:\n"
        "    print(exc); sys.exit(0 if 'schemarouter-core[sentence-transformers]' in str(exc) else 2)\n"
        "sys.exit(1)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
