!function(w,c){c=w.Checkout=w.Checkout||{q:[]};["mount","open"].forEach(function(m){c[m]=c[m]||function(){c.q.push([m,arguments])}})}(window);
