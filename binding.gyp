{
  # Built by node-gyp (npm install -> node-gyp-build, npm run build:native).
  # Sources are listed by a node command expansion, run in this directory at
  # configure time, so a new native/engine/*.cc or native/addon/*.cc is picked
  # up by the next `node-gyp configure` (native/tests/ is never compiled here).
  # LG_ADDON_ONLY=1 in the environment leaves the engine sources out (to check
  # the build setup while the engine does not compile).
  "targets": [
    {
      "target_name": "loadgen",
      "sources": [
        "<!@(node -e \"const fs=require('fs');const l=d=>fs.readdirSync(d).filter(f=>f.endsWith('.cc')).sort().map(f=>d+'/'+f);console.log([...(process.env.LG_ADDON_ONLY==='1'?[]:l('native/engine')),...l('native/sse'),...l('native/addon')].join(' '))\")"
      ],
      "include_dirs": [
        "native/engine",
        "native/sse",
        "<!(node -p \"require('node-addon-api').include_dir\")"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS",
        "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"
      ],
      "cflags!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
      "cflags": ["-O3", "-pthread"],
      "cflags_cc": ["-std=c++17", "-O3", "-fexceptions", "-frtti", "-pthread"],
      "conditions": [
        ["OS!='win'", { "ldflags": ["-pthread"], "libraries": ["-pthread"] }]
      ],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "GCC_ENABLE_CPP_RTTI": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "CLANG_CXX_LIBRARY": "libc++",
        "MACOSX_DEPLOYMENT_TARGET": "10.15",
        "GCC_OPTIMIZATION_LEVEL": "3"
      },
      "msvs_settings": {
        "VCCLCompilerTool": {
          "ExceptionHandling": 1,
          "RuntimeTypeInfo": "true",
          "AdditionalOptions": ["/std:c++17"]
        }
      }
    }
  ]
}
