"""llama.cpp's own HTTP server as shipped prebuilt in the PyPI wheel xllamacpp, started with the
settings tests/llama/run.sh gives llama-server on its command line (used when no llama-server
built from the llama-cpp-python source is cached). Serves until killed.

usage: xllamacpp_server.py MODEL PORT TEMPLATE GRAMMAR THREADS
"""

import signal
import sys
import time

import xllamacpp as xlc

model, port, template, grammar, threads = sys.argv[1:6]
p = xlc.CommonParams()
p.model.path = model
p.model_alias = "smollm2-135m"
p.hostnames = ["127.0.0.1"]
p.port = int(port)
p.n_ctx = 4096
p.n_parallel = 1
p.cpuparams.n_threads = int(threads)
p.cpuparams_batch.n_threads = int(threads)
# --jinja --chat-template-file TEMPLATE --skip-chat-parsing --grammar-file GRAMMAR
p.use_jinja = True
with open(template, encoding="utf-8") as f:
    p.chat_template = f.read()
p.force_pure_content_parser = True
with open(grammar, encoding="utf-8") as f:
    p.sampling.grammar = xlc.CommonGrammar(type=p.sampling.grammar.type, grammar=f.read())
p.sampling.seed = 42
p.sampling.temp = 0.0
server = xlc.Server(p)
print("listening", server.listening_address, flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    time.sleep(3600)
