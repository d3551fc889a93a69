// Swagger UI over this server's document (the page names it: /v1's, or the Feeef face's). No validator badge (it would call an outside service);
// "Authorize" takes a bearer token, prefilled from the console's sign-in.
const ui = SwaggerUIBundle({
  url: document.body.dataset.openapi ?? '/v1/openapi.json',
  dom_id: '#reference',
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: false,
  persistAuthorization: false,
  onComplete: () => {
    const token = sessionStorage.getItem('souk.token');
    if (token) ui.preauthorizeApiKey('bearer', token);
  },
});
