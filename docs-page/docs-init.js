// The document sits next to the page: /api-docs/openapi.json, also under a /rest-api/ prefix.
window.addEventListener('load', function () {
    var specUrl = new URL('../api-docs/openapi.json', window.location.href.replace(/\/api-doc\/?.*$/, '/api-doc/')).href;
    window.ui = SwaggerUIBundle({
        url: specUrl,
        dom_id: '#swagger-ui',
        deepLinking: true,
        tryItOutEnabled: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: 'StandaloneLayout',
    });
});
