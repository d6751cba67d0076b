"""The console filter scripts of geth's (and Evmos') tracing docs, verbatim: examples for users,
and the scripts our tests and benches run."""

# Built exactly as the console examples build them (string concatenation included).
ALL_OPS = ('{retVal: [],' +
           'step: function(log,db) {this.retVal.push(log.getPC() + ":" + log.op.toString())},' +
           'fault: function(log,db) {this.retVal.push("FAULT: " + JSON.stringify(log))},' +
           'result: function(ctx,db) {return this.retVal}}')

STORAGE_OPS = ('{' +
               'retVal: [],' +
               'step: function(log,db) {' +
               '   if(log.op.toNumber() == 0x54) ' +
               '     this.retVal.push(log.getPC() + ": SLOAD");' +
               '   if(log.op.toNumber() == 0x55) ' +
               '     this.retVal.push(log.getPC() + ": SSTORE");' +
               '},' +
               'fault: function(log,db) {this.retVal.push("FAULT: " + JSON.stringify(log))},' +
               'result: function(ctx,db) {return this.retVal}' +
               '}')

STORAGE_VALUES = ('{' +
                  'retVal: [],' +
                  'step: function(log,db) {' +
                  '   if(log.op.toNumber() == 0x54) ' +
                  '     this.retVal.push(log.getPC() + ": SLOAD " + ' +
                  '        log.stack.peek(0).toString(16));' +
                  '   if(log.op.toNumber() == 0x55) ' +
                  '     this.retVal.push(log.getPC() + ": SSTORE " +' +
                  '        log.stack.peek(0).toString(16) + " <- " +' +
                  '        log.stack.peek(1).toString(16));' +
                  '},' +
                  'fault: function(log,db) {this.retVal.push("FAULT: " + JSON.stringify(log))},' +
                  'result: function(ctx,db) {return this.retVal}' +
                  '}')
