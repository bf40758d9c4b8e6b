"""Every way a result leaves rankscope: trec_eval's text (`trec`), ndeval's CSV (`ndeval`),
aligned tables, CSV and JSON (`tables`), TREC and Parquet files (`files`), the measure
reference (`reference`)."""
