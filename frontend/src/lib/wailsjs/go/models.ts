export namespace app {
	
	export class ReadyReport {
	    version_shown: string;
	    regions: string[];
	    width: number;
	    height: number;
	
	    static createFrom(source: any = {}) {
	        return new ReadyReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version_shown = source["version_shown"];
	        this.regions = source["regions"];
	        this.width = source["width"];
	        this.height = source["height"];
	    }
	}
	export class Status {
	    version: string;
	    db_path: string;
	    schema_version: number;
	    db_error?: apperr.Error;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.db_path = source["db_path"];
	        this.schema_version = source["schema_version"];
	        this.db_error = this.convertValues(source["db_error"], apperr.Error);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace apperr {
	
	export class Error {
	    code: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Error(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.message = source["message"];
	    }
	}

}

export namespace buildinfo {
	
	export class Info {
	    version: string;
	    commit: string;
	    go_version: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.commit = source["commit"];
	        this.go_version = source["go_version"];
	    }
	}

}

